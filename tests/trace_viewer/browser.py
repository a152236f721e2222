"""Headless Chromium for the viewer tests: Debian's ``chromium`` and its matching ``chromium-driver``
(same package version, so the driver always speaks the browser's protocol), driven through selenium.

:func:`chromium_reason` installs both with apt-get when they are missing and this process may
(root, apt-get present), and otherwise returns why the browser tests must be skipped. The browser
starts with no network features (this project's test machines have no network) and a fresh profile.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
PACKAGES = ("chromium", "chromium-driver")
APT_TIMEOUT_S = 1200
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--window-size=1400,1000", "--hide-scrollbars")


def chromium_reason() -> str | None:
    """None when Chromium and its driver are there (installed now if need be), else why not."""
    if CHROMIUM.exists() and CHROMEDRIVER.exists():
        return None
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return f"{CHROMIUM} or {CHROMEDRIVER} missing and not root: apt-get install {' '.join(PACKAGES)}"
    if shutil.which("apt-get") is None:
        return f"{CHROMIUM} or {CHROMEDRIVER} missing and no apt-get to install {' '.join(PACKAGES)}"
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for command in (["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "-qq", *PACKAGES]):
        try:
            done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=APT_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            return f"{' '.join(command)} took over {APT_TIMEOUT_S} s"
        if done.returncode:
            last = (done.stderr.strip().splitlines() or ["no output"])[-1]
            return f"{' '.join(command)} failed ({done.returncode}): {last}"
    if not (CHROMIUM.exists() and CHROMEDRIVER.exists()):
        return f"apt-get installed {' '.join(PACKAGES)} but {CHROMIUM} or {CHROMEDRIVER} is still missing"
    return None


def start_chromium(profile: Path | None = None):
    """A selenium driver of headless Chromium that keeps the page's console messages."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile or tempfile.mkdtemp(prefix='chromium-profile-')}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
