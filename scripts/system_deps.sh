#!/usr/bin/env bash
# The system libraries a real window needs, found rather than guessed: `ldd` on the Qt xcb platform
# plugin of .venv's PySide6 names the shared libraries this machine lacks, plus libxcb-cursor0, which
# Qt 6.5+ loads at run time (dlopen, invisible to ldd). Then Tesseract, which reads scanned grammars,
# with the models of the usual languages of description (English, French, Spanish, Portuguese, German,
# Russian, Indonesian, Dutch), Armenian (hye: examples printed in Armenian script, added when a grammar
# describes Armenian), the Latin-script model (--ocr-language Latin, for IPA in examples) and osd (script
# and orientation), each checked with `tesseract --list-langs`.
# On Debian/Ubuntu they are installed with apt when we are root or sudo works without a password;
# otherwise the exact command is printed.
#   scripts/system_deps.sh            libraries for the window
#   scripts/system_deps.sh --tests    the same, plus Xvfb and xauth so the tests can open a real window
# Exit status: 0 when everything is there (or was installed), 1 when something is still missing
# (a missing Tesseract package alone is only reported, except under CI=true).
set -euo pipefail
cd "$(dirname "$0")/.."

want_xvfb=false
[ "${1:-}" = "--tests" ] && want_xvfb=true

plugin=$(.venv/bin/python - <<'EOF'
import os, PySide6
print(os.path.join(os.path.dirname(PySide6.__file__), "Qt", "plugins", "platforms", "libqxcb.so"))
EOF
)

# Debian package of a shared library, by its soname. Names that do not follow the usual rule are listed.
package_of() {
    case "$1" in
        libEGL.so.1) echo libegl1 ;;
        libGL.so.1) echo libgl1 ;;
        libOpenGL.so.0) echo libopengl0 ;;
        libX11.so.6) echo libx11-6 ;;
        libX11-xcb.so.1) echo libx11-xcb1 ;;
        libglib-2.0.so.0|libgthread-2.0.so.0) echo libglib2.0-0 ;;
        libdbus-1.so.3) echo libdbus-1-3 ;;
        libxkbcommon-x11.so.0) echo libxkbcommon-x11-0 ;;
        *)  # libxcb-icccm.so.4 -> libxcb-icccm4; a name ending in a digit takes a hyphen (libfoo2.so.1 -> libfoo2-1)
            local base=${1%%.so.*} version=${1##*.so.}
            base=$(echo "$base" | tr 'A-Z' 'a-z')
            if [[ $base =~ [0-9]$ ]]; then echo "$base-$version"; else echo "$base$version"; fi ;;
    esac
}

missing=()
if [ -f "$plugin" ]; then
    while read -r soname; do
        missing+=("$(package_of "$soname")")
    done < <(ldd "$plugin" | awk '/not found/ {print $1}' | sort -u)
else
    echo "setup: Qt's xcb plugin was not found at $plugin" >&2
fi
if ! /sbin/ldconfig -p 2>/dev/null | grep -q 'libxcb-cursor\.so\.0'; then
    missing+=(libxcb-cursor0)
fi
ocr_models=(eng fra spa por deu rus ind nld hye osd)
have_models=$(tesseract --list-langs 2>/dev/null | tail -n +2 || true)
window_missing=${#missing[@]}  # how many of them the window needs (the OCR packages come after)
command -v tesseract >/dev/null || missing+=(tesseract-ocr)
for model in "${ocr_models[@]}"; do
    grep -qx "$model" <<<"$have_models" || missing+=("tesseract-ocr-$model")
done
grep -qx Latin <<<"$have_models" || missing+=(tesseract-ocr-script-latn)  # --ocr-language Latin (IPA in examples)
ocr_missing=$((${#missing[@]} - window_missing))
if $want_xvfb; then
    command -v Xvfb >/dev/null || { missing+=(xvfb); window_missing=$((window_missing + 1)); }
    command -v xauth >/dev/null || { missing+=(xauth); window_missing=$((window_missing + 1)); }
fi
if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi
readarray -t missing < <(printf '%s\n' "${missing[@]}" | sort -u)

install=""
if [ "$(id -u)" = 0 ]; then
    install="env"
elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
    install="sudo"
fi
if command -v apt-get >/dev/null && [ -n "$install" ]; then
    echo "setup: installing system packages (Qt window, Tesseract OCR): ${missing[*]}" >&2
    if $install DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null 2>&1 \
        || { $install apt-get update -qq >/dev/null 2>&1 \
             && $install DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; }; then
        exit 0
    fi
    echo "setup: apt-get could not install: ${missing[*]}" >&2
fi
cat >&2 <<EOF
setup: GrammarLens needs system packages this machine lacks: ${missing[*]}
setup: install them with:  sudo apt-get install ${missing[*]}
setup: (the libxcb/libx* libraries are for the window; tesseract-ocr* for scanned, image-only grammars)
EOF
# without Tesseract only scanned grammars are refused (with this command in the message); CI must have it
if [ "$window_missing" -eq 0 ] && [ "$ocr_missing" -gt 0 ] && [ "${CI:-}" != "true" ]; then
    exit 0
fi
exit 1
