# apt-mirror.sh - sourced by the scripts that fetch Debian packages (forky-root.sh,
# cupti-headers.sh). opscope_apt_mirror prints the package mirror: OPSCOPE_MIRROR, else the
# first non-security one of the host's own apt configuration (deb822 sources, then
# sources.list), so no mirror's host name is written in the repo. With none it says so on
# stderr, prefixed by $1, and returns 1.
opscope_apt_mirror() {
    if [ -n "${OPSCOPE_MIRROR:-}" ]; then echo "$OPSCOPE_MIRROR"; return 0; fi
    local u=""
    if [ -f /etc/apt/sources.list.d/debian.sources ]; then
        u=$(awk '/^URIs:/ && $2 !~ /security/ { print $2; exit }' /etc/apt/sources.list.d/debian.sources)
    fi
    if [ -z "$u" ] && [ -f /etc/apt/sources.list ]; then
        u=$(awk '$1 == "deb" && $0 !~ /security/ { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { print $i; exit } }' /etc/apt/sources.list)
    fi
    if [ -z "$u" ]; then
        echo "$1: no package mirror in the host's apt configuration; set OPSCOPE_MIRROR" >&2
        return 1
    fi
    echo "$u"
}
