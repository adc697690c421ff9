# The storage svc_site/assets.py subclasses: Django's manifest storage, with compressed copies of each file.
from django.contrib.staticfiles.storage import ManifestStaticFilesStorage

class CompressedManifestStaticFilesStorage(ManifestStaticFilesStorage): ...
