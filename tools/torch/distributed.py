"""The trainers' shared half (train.py for the world model, lm_train.py for the language
model): rank and world size under torchrun (gloo on the CPU, nccl on GPUs) or a plain
process, device words, atomic text files. Each trainer draws the same global batch on every
rank, takes its share and scales its loss so the averaged gradient is the whole batch's.
"""

import os

import torch
import torch.distributed as dist


class Dist:
    """Rank and world size from torchrun's environment; a plain run is rank 0 of 1."""

    def __init__(self, device="auto"):
        self.enabled = "RANK" in os.environ and "WORLD_SIZE" in os.environ
        self.world = int(os.environ.get("WORLD_SIZE", "1")) if self.enabled else 1
        self.rank = int(os.environ.get("RANK", "0")) if self.enabled else 0
        self.local_rank = int(os.environ.get("LOCAL_RANK", "0"))
        self.cuda = device != "cpu" and torch.cuda.is_available()
        self.device = torch.device(f"cuda:{self.local_rank}" if self.cuda else "cpu")
        if self.enabled:
            if self.cuda:
                torch.cuda.set_device(self.device)
            dist.init_process_group(backend="nccl" if self.cuda else "gloo")

    def all_sum(self, t):
        if self.enabled:
            dist.all_reduce(t)
        return t

    def close(self):
        if self.enabled:
            dist.destroy_process_group()


def write_text_atomically(path, text):
    tmp = f"{path}.tmp-{os.getpid()}"
    with open(tmp, "w") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def cuda_missing_reason():
    """Why --device cuda cannot run here, in words a user can act on."""
    if torch.version.cuda is None:
        return (f"this PyTorch ({torch.__version__}) is built without CUDA (Debian's python3-torch "
                "is CPU-only); install a CUDA build of PyTorch as tools/torch/README.md says, "
                "or use --device cpu")
    return (f"this PyTorch has CUDA {torch.version.cuda} but sees no GPU (driver, "
            "CUDA_VISIBLE_DEVICES?); use --device cpu to train on the CPU")


def describe_device(device):
    if device.type == "cuda":
        return f"{device} ({torch.cuda.get_device_name(device)}, CUDA {torch.version.cuda})"
    return f"cpu ({torch.get_num_threads()} threads; torch {torch.__version__})"
