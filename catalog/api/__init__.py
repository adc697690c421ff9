"""The read-only JSON API under /api/v2/: a thin Django app over the domain."""
