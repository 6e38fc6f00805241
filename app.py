"""Quarry: a local research assistant.

    python app.py                 start the desktop UI on http://127.0.0.1:7860
    python app.py SUBCOMMAND ...  command-line tools (python app.py --help lists them)
"""
import os
import sys

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from App_Function_Libraries.CLI.main import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
