"""Shared test configuration: hypothesis profiles, chosen by the HYPOTHESIS_PROFILE environment variable."""

import os
import warnings

from hypothesis import settings

# "default" and "ci" run the full count; "dev" is a quick local loop. deadline=None: playout length varies.
settings.register_profile("default", max_examples=100, deadline=None)
settings.register_profile("ci", max_examples=100, deadline=None)
settings.register_profile("dev", max_examples=20, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

# When a @given test fails, hypothesis's pytest plugin imports libcst to suggest a patch; that import raises a
# DeprecationWarning (mypy_extensions.TypedDict), which `filterwarnings = ["error"]` turns into a pytest
# INTERNALERROR that hides the failure. Importing it once here, warnings silenced, keeps failures readable.
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    try:
        import hypothesis.extra._patching  # noqa: F401
    except ImportError:  # libcst absent: the plugin skips the patch itself
        pass
