"""The web UI (Gradio): chat with streamed, cited answers, the cited passages, documents, feedback.

    geungeo ui                      # the UI alone, on http://127.0.0.1:7860/
    geungeo serve                   # the HTTP API, with the UI at /ui (GEUNGEO_UI_MOUNT_PATH)

``handlers`` holds the logic as plain functions (no gradio), ``app`` the layout and the mounting;
import ``geungeo.interfaces.web.app`` for ``build_ui``, ``mount_ui`` and ``create_ui_app``.
"""

import os

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")  # no telemetry, no version check: geungeo runs offline
