"""Shared by the experiment scripts: project paths and a stable private copy of build/mpgpu."""
import datetime
import hashlib
import os
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MPGPU = os.path.join(ROOT, "build", "mpgpu")


def snapshot_binary(out_dir):
    """Copies build/mpgpu to out_dir so that the whole sweep runs one binary even if build/ is
    rebuilt meanwhile; retries while the file is being written. Returns (path, description)."""
    for _ in range(60):
        try:
            before = os.stat(MPGPU).st_mtime
            dst = os.path.join(out_dir, f".mpgpu-{os.getpid()}")
            shutil.copy2(MPGPU, dst)
            ok = subprocess.run([dst, "--help"], capture_output=True).returncode == 0
            if ok and os.stat(MPGPU).st_mtime == before:
                with open(dst, "rb") as f:
                    digest = hashlib.sha256(f.read()).hexdigest()[:12]
                when = datetime.datetime.fromtimestamp(before).strftime("%Y-%m-%d %H:%M:%S")
                return dst, f"build/mpgpu of {when}, sha256 {digest}"
        except OSError:
            pass
        time.sleep(2)
    sys.exit(f"could not take a stable copy of {MPGPU} (being rebuilt?)")
