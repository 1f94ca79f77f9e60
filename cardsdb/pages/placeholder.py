"""A page still being built: it says so (a 200 with its title), so the site's links resolve meanwhile."""

from django.shortcuts import render


def placeholder(title):
    def view(request, **kwargs):
        return render(request, "cardsdb/placeholder.html", {"title": title})
    return view
