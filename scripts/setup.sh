#!/usr/bin/env bash
# Installs the Debian packages the model needs (run as root, or with sudo available).
#   --slurm: also Slurm and munge, for the sweep runner's Slurm backend on a single-node cluster
#            (scripts/slurm_cluster.sh; the Sweep.Slurm test calls this when they are missing).
set -euo pipefail
PKGS=(build-essential cmake pkg-config libsystemc-dev libyaml-cpp-dev libboost-dev
      googletest libgtest-dev libcli11-dev nlohmann-json3-dev libfmt-dev libxxhash-dev python3 python3-matplotlib python3-yaml verilator)
if [ "${1:-}" = "--slurm" ]; then PKGS+=(slurm-wlm munge); fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
