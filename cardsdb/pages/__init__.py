"""Pages for people: the home page, search across both games, signing in and out."""
