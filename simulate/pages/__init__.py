"""Pages for people: the match page with its replay viewer, and studies (see cardsdb/pages)."""
