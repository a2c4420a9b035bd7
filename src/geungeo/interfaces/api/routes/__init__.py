"""One router per concern; :func:`geungeo.interfaces.api.create_app` mounts them."""
