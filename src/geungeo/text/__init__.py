"""Text normalisation, Korean tokenisation and statute structure patterns."""
