# whitenoise ships no type information: these stubs declare the part svc uses (mypy_path in pyproject.toml).
