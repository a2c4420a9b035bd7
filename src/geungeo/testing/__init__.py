"""Test helpers shipped with the package: fakes for the edges tests cannot reach, and contract suites."""
