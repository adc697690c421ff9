"""Settings of the Django baseline: svc's own settings, with only the bench's URLs.

Same middleware, same logging, same everything except the view, so that a page's
ratio to this baseline measures what the page's view costs, not Django's floor.
"""

from svc_site.settings import *  # noqa: F403

ROOT_URLCONF = "bench.baseline_urls"
