"""Execute one percent-format notebook with its parameters replaced: a step of `make notebooks`.

    python scripts/execute_notebook.py notebooks/NAME.py OUT.ipynb [-p NAME VALUE] [-r NAME VALUE]

The script is read as a notebook (jupytext), its parameters are set after the cell tagged
``parameters`` (papermill: ``-p`` reads a number, ``True``, ``False`` or ``None`` as such,
``-r`` keeps the text as it is) and it runs in the script's folder, as Jupyter Lab runs it.

The notebook is handed to papermill in memory, not through a pipe, which papermill cannot tell
is a notebook. The kernel's channels are encrypted (CurveZMQ keys given by the kernel manager,
where the kernel says it takes them, as ipykernel's do): on plain TCP any program on the
machine could read the code and its outputs, and the kernel warns that it might.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import jupytext
import papermill
from jupyter_client.manager import KernelManager
from traitlets.config import Config


def value(text: str) -> Any:
    """A ``-p`` value as papermill's command line reads it."""
    named = {"True": True, "False": False, "None": None}
    if text in named:
        return named[text]
    for number in (int, float):
        try:
            return number(text)
        except ValueError:
            pass
    return text


def kernel_config() -> Config:
    """The kernel manager's settings: encrypted channels where jupyter_client offers them."""
    config = Config()
    if "transport_encryption" in KernelManager.class_trait_names():
        config.KernelManager.transport_encryption = "auto"
    return config


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebook", type=Path, help="a percent-format script")
    parser.add_argument("out", type=Path, help="the executed notebook (.ipynb)")
    parser.add_argument("-p", nargs=2, action="append", default=[], metavar=("NAME", "VALUE"))
    parser.add_argument("-r", nargs=2, action="append", default=[], metavar=("NAME", "TEXT"))
    args = parser.parse_args()
    parameters = {name: value(text) for name, text in args.p} | dict(args.r)
    papermill.execute_notebook(
        jupytext.read(args.notebook),
        str(args.out),
        parameters=parameters,
        cwd=str(args.notebook.parent),
        progress_bar=False,
        config=kernel_config(),
    )


if __name__ == "__main__":
    main()
