"""The OAI-PMH endpoint lives at the path of SVC_OAI_BASE_URL."""

urlpatterns: list = []
