#!/usr/bin/env bash
# Renders the lease-timeout corpus case as an HTML space-time diagram, screenshots it with
# headless Chromium and checks the picture is not blank: enough non-white pixels, and red
# pixels from the highlighted violation. Writes target/screenshot/trace.{html,png}.
#
# Needs /usr/bin/chromium (installed from Debian's `chromium` package when run as root; as
# another user without it, the screenshot is skipped with a message) and python3 (standard
# library only). Exits non-zero when any step fails.
set -euo pipefail
cd "$(dirname "$0")/.."

scenario=corpus/mutex/centralized-lease-timeout-overlap.json
out=target/screenshot
mkdir -p "$out"

echo "=== render $scenario to $out/trace.html ==="
cargo run --release --quiet -- show "$scenario" --format html --out "$out/trace.html"

if [ ! -x /usr/bin/chromium ]; then
    if [ "$(id -u)" -eq 0 ]; then
        echo "=== installing chromium (Debian package) ==="
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        apt-get install -y -qq --no-install-recommends chromium
    else
        echo "SKIPPED: /usr/bin/chromium is missing and this script is not running as root, so" >&2
        echo "         it cannot install it; the HTML is in $out/trace.html. To take the screenshot:" >&2
        echo "         sudo apt-get install -y --no-install-recommends chromium" >&2
        exit 0
    fi
fi

echo "=== screenshot $out/trace.png ==="
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
rm -f "$out/trace.png"
/usr/bin/chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --disable-dev-shm-usage --hide-scrollbars --user-data-dir="$profile" \
    --window-size=1400,900 --screenshot="$PWD/$out/trace.png" \
    "file://$PWD/$out/trace.html" 2> "$out/chromium.log" || {
    cat "$out/chromium.log" >&2
    echo "error: chromium failed" >&2
    exit 1
}
if [ ! -s "$out/trace.png" ]; then
    cat "$out/chromium.log" >&2
    echo "error: chromium wrote no screenshot" >&2
    exit 1
fi

echo "=== check the screenshot is not blank ==="
python3 - "$out/trace.png" <<'EOF'
import struct, sys, zlib

path = sys.argv[1]
data = open(path, "rb").read()
if data[:8] != b"\x89PNG\r\n\x1a\n":
    sys.exit(f"{path}: not a PNG")
pos, idat, width = 8, b"", 0
while pos < len(data):
    length, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + length]
    if kind == b"IHDR":
        width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
        if depth != 8 or colour not in (2, 6) or interlace:
            sys.exit(f"{path}: unsupported PNG (depth {depth}, colour type {colour}, interlace {interlace})")
        channels = 3 if colour == 2 else 4
    elif kind == b"IDAT":
        idat += body
    pos += 12 + length
raw = zlib.decompress(idat)
stride = width * channels
rows, prev, i = [], bytearray(stride), 0
for _ in range(height):
    f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
    i += 1 + stride
    for x in range(stride):
        a = line[x - channels] if x >= channels else 0
        b = prev[x]
        c = prev[x - channels] if x >= channels else 0
        if f == 1:
            line[x] = (line[x] + a) & 255
        elif f == 2:
            line[x] = (line[x] + b) & 255
        elif f == 3:
            line[x] = (line[x] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    rows.append(line)
    prev = line
total = width * height
nonwhite = red = 0
colours = set()
for line in rows:
    for x in range(0, stride, channels):
        r, g, b = line[x], line[x + 1], line[x + 2]
        colours.add((r, g, b))
        if r < 245 or g < 245 or b < 245:
            nonwhite += 1
        if r >= 180 and g <= 90 and b <= 90:
            red += 1
share = 100.0 * nonwhite / total
print(f"{path}: {width}x{height}, {len(colours)} distinct colours, "
      f"{share:.2f}% non-white pixels, {red} red pixels")
problems = []
if share <= 1.0:
    problems.append("at most 1% of the pixels are non-white: the page looks blank")
if len(colours) < 16:
    problems.append(f"only {len(colours)} distinct colours")
if red < 200:
    problems.append(f"only {red} red pixels: the violation is not highlighted")
if problems:
    sys.exit("screenshot check failed: " + "; ".join(problems))
print("screenshot check passed")
EOF
