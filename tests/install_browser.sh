#!/usr/bin/env bash
# Debian's Chromium for the Mini App's browser tests (Playwright drives it by its path; its
# own browser download is never used). Installs it when missing; root or sudo needed then.
set -euo pipefail
if command -v chromium >/dev/null 2>&1; then
    exit 0
fi
if [ "$(id -u)" -eq 0 ]; then
    SUDO=""
else
    SUDO="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
PACKAGES="chromium fonts-noto-color-emoji"
# shellcheck disable=SC2086
$SUDO apt-get install -y -q $PACKAGES || {
    $SUDO apt-get update -q && $SUDO apt-get install -y -q $PACKAGES
}
command -v chromium
