"""Pages for people (see cardsdb/pages)."""
