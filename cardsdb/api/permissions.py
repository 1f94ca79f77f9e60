"""Access rules: the catalogue is public to read and staff-only to write; designers (staff, or the `designers`
group) have rates of their own for studies."""

from rest_framework.permissions import SAFE_METHODS, BasePermission


class IsStaffOrReadOnly(BasePermission):
    def has_permission(self, request, view) -> bool:
        if request.method in SAFE_METHODS:
            return True
        return bool(request.user and request.user.is_staff)


DESIGNERS_GROUP = "designers"  # a group, not a permission: it needs no migration


def is_designer(user) -> bool:
    """A card designer: a staff account, or an account of the `designers` group."""
    if user is None or not user.is_authenticated:
        return False
    return bool(user.is_staff or user.groups.filter(name=DESIGNERS_GROUP).exists())
