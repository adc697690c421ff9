"""The benchmark harness (not installed with svc): corpus generator, load timer, HTTP benchmark."""
