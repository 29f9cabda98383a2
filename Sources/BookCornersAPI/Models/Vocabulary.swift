// Whoever speaks to the backend speaks its statuses and reasons: they come with the client.
@_exported import ModerationVocabulary
