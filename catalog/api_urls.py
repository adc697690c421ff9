"""The JSON API under /api/v2/."""

urlpatterns: list = []
