import ModerationVocabulary

/// The one helper for counted nouns ("1 library", "3 libraries"), shared with the store's
/// own texts (hand-off digests): see `ModerationVocabulary.CountText`.
typealias CountText = ModerationVocabulary.CountText
