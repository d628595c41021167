"""The package's version, sent in the User-Agent (``relay-sdk-python/<version>``)."""

__version__ = "0.1.0"
USER_AGENT = f"relay-sdk-python/{__version__}"
