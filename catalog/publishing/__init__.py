"""What harvesters receive of each item, decided once for ``svc stamp`` and ``svc serve`` (framework-free)."""
