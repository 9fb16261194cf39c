"""Request and response schemas of the API."""
