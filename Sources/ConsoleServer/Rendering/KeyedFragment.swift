import Mustache

/// A list item whose written HTML the templates may keep and write again for an equal item
/// (`KeptFragments`): a queue row, built anew for every view but mostly the same as the last.
///
/// The promise a conforming type makes: what it answers (`child(named:)`, and the values it
/// hands out) depends on its stored value alone, never on a clock or anything outside it, and
/// `==` compares every stored property. Then an equal item writes equal bytes under the same
/// section, and a kept fragment is stale only if the item changed, which changes the key.
/// A lookup that leaves the item for the page around it is noticed while writing, and such a
/// fragment is never kept (`TemplateRendering`).
protocol KeyedFragment: MustacheParent, Hashable, Sendable {}
