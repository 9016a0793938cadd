#!/bin/sh
# Debian's Chromium, which prints the report to PDF and opens it in the tests: installed when
# missing, by root with apt-get, and only when the install adds packages and changes none that
# are installed already. apt-get simulates the install first, and this says what it would add
# (packages, download, disk) before doing it; if it would upgrade or remove any installed
# package, nothing is installed, and the report is written as HTML (it says how to get the
# PDF). Exits 0 in every case: the PDF is optional.
set -u
PACKAGE=chromium
OPTIONS="--no-install-recommends --no-upgrade"
HTML_ONLY="the report will be written as HTML only"

command -v chromium >/dev/null 2>&1 && exit 0
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "No Chromium: installing Debian's needs root and apt-get; $HTML_ONLY"
    exit 0
fi
export LC_ALL=C DEBIAN_FRONTEND=noninteractive
if ! apt-get update -q >/dev/null 2>&1; then
    echo "No Chromium: apt-get update failed; $HTML_ONLY"
    exit 0
fi
# shellcheck disable=SC2086  # the options are words
if ! plan=$(apt-get install -s $OPTIONS "$PACKAGE" 2>&1); then
    last=$(printf '%s\n' "$plan" | tail -n 1)
    echo "No Chromium: apt-get cannot install $PACKAGE ($last); $HTML_ONLY"
    exit 0
fi
# "Inst name [installed version] (new version ...)" upgrades an installed package; "Remv" removes one.
changed=$(printf '%s\n' "$plan" | grep -E '^(Inst [^ ]+ \[|Remv )' | cut -d' ' -f2)
if [ -n "$changed" ]; then
    count=$(printf '%s\n' "$changed" | grep -c .)
    names=$(printf '%s\n' "$changed" | tr '\n' ' ' | sed 's/ $//')
    echo "No Chromium installed: the install would also upgrade or remove $count installed" \
        "packages ($names); $HTML_ONLY"
    exit 0
fi
added=$(printf '%s\n' "$plan" | grep -c '^Inst ')
# shellcheck disable=SC2086
sizes=$(apt-get install --assume-no $OPTIONS "$PACKAGE" 2>/dev/null)
download=$(printf '%s\n' "$sizes" | sed -n 's|^Need to get \([0-9.,]* [kMG]*B\).*|\1|p')
disk=$(printf '%s\n' "$sizes" | sed -n 's|^After this operation, \([0-9.,]* [kMG]*B\).*|\1|p')
echo "Installing Debian's Chromium to print the report to PDF: $added new packages," \
    "${download:-an unknown size} to download, ${disk:-an unknown size} on disk;" \
    "no installed package is upgraded or removed"
# shellcheck disable=SC2086
apt-get install -y -q $OPTIONS "$PACKAGE" || echo "No Chromium: apt-get install failed; $HTML_ONLY"
exit 0
