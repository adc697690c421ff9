"""The HTML pages: a thin Django app over the domain and the format writers."""
