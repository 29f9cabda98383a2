// Actions and audit entries store statuses and reasons: the store's callers get their types with it.
@_exported import ModerationVocabulary
