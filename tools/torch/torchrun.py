"""torchrun with one fix: PyTorch 1.13's launcher (Debian 12's python3-torch) fails on Python
3.11 before starting any worker ("'NoneType' object has no attribute 'get'"), because its
Std.from_str looks the value up by iterating an IntFlag, and since Python 3.11 that
iteration skips the zero member NONE. This wrapper looks the value up directly and then
runs the unchanged torch.distributed.run with the same arguments:

  /usr/bin/python3 tools/torch/torchrun.py --standalone --nproc_per_node=2 tools/torch/train.py ...

On a PyTorch without the bug it changes nothing.
"""

import re
import sys

from torch.distributed.elastic.multiprocessing import api as _mp_api


def _from_str(cls, vm):
    value_re = getattr(_mp_api, "_VALUE_REGEX", r"^[0-3]$")
    mapping_re = getattr(_mp_api, "_MAPPING_REGEX", r"^(\d:[0-3],)*(\d:[0-3])$")
    if re.match(value_re, vm):
        return cls(int(vm))
    if re.match(mapping_re, vm):
        return {int(i): cls(int(v)) for i, v in (m.split(":") for m in vm.split(","))}
    raise ValueError(f"{vm} does not match: <{value_re}> or <{mapping_re}>")


def needs_fix():
    try:
        return _mp_api.Std.from_str("0") is not _mp_api.Std.NONE
    except Exception:  # noqa: BLE001 - any failure of the original means it needs the fix
        return True


if needs_fix():
    _mp_api.Std.from_str = classmethod(_from_str)

def run(argv=None):
    """torch.distributed.run's main. Stopping a job (Ctrl-C, or SIGTERM to the launcher) is
    not a failure: the launcher passes the signal to every worker, train.py finishes its step
    and saves, and the launcher then raises SignalException, which would end in a traceback
    and exit 1. That case ends here with one line and exit 0, as a stopped plain train.py does;
    a worker that really failed still raises ChildFailedError."""
    from torch.distributed.elastic.multiprocessing.api import SignalException
    from torch.distributed.run import main

    try:
        main(argv)
    except SignalException as e:
        print(f"torchrun.py: stopped by signal {e.sigval.name}; the workers saved their last "
              "checkpoint (continue with train.py --resume)", file=sys.stderr)
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(run())
