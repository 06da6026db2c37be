#!/usr/bin/env bash
# Renders a short and a long failing corpus case as HTML space-time diagrams (the default view
# of `sincro show`), screenshots each with headless Chromium in a 1400x900 window (the first
# screen a reader sees) and checks the picture: not blank, and the violation drawn on that
# first screen (red pixels of the violating marks; the verdict box at the top is dark red and
# does not count). Writes target/screenshot/<case>.{html,png}.
#
# Needs /usr/bin/chromium (installed from Debian's `chromium` package when run as root; as
# another user without it, the screenshot is skipped with a message) and python3 (standard
# library only). Exits non-zero when any step fails.
set -euo pipefail
cd "$(dirname "$0")/.."

# name=scenario: a short failure (22 events) and two long ones (363 events, two leaders
# 200 ms apart; 556 events, the violation past the 400th event), and a five-node election
# whose violating events are all on its last line (stop 66: 25 px below the first screen,
# while the red pixels of the violation's time line passed the check).
cases=(
    short=corpus/mutex/centralized-lease-timeout-overlap.json
    long-lease=corpus/election/lease-no-step-down-split-brain.json
    long-token-ring=corpus/mutex/token-ring-late-token-no-generation.json
    five-nodes=ci/cases/terms-five-nodes-last-line.json
)
out=target/screenshot
mkdir -p "$out"

cargo build --release --quiet
for case in "${cases[@]}"; do
    name=${case%%=*}
    scenario=${case#*=}
    echo "=== render $scenario to $out/$name.html ==="
    target/release/sincro show "$scenario" --format html --out "$out/$name.html"
done

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

profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
for case in "${cases[@]}"; do
    name=${case%%=*}
    echo "=== screenshot $out/$name.png ==="
    rm -f "$out/$name.png"
    /usr/bin/chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --disable-dev-shm-usage --hide-scrollbars --user-data-dir="$profile" \
        --window-size=1400,900 --screenshot="$PWD/$out/$name.png" \
        "file://$PWD/$out/$name.html" 2> "$out/chromium.log" || {
        cat "$out/chromium.log" >&2
        echo "error: chromium failed" >&2
        exit 1
    }
    if [ ! -s "$out/$name.png" ]; then
        cat "$out/chromium.log" >&2
        echo "error: chromium wrote no screenshot" >&2
        exit 1
    fi
done

echo "=== check each page's layout: every violating event (a red ring) on the first screen ==="
# The page has no script; a copy gets one that writes the rings' box, as laid out in a
# 1400x900 window, into the DOM, which Chromium dumps.
for case in "${cases[@]}"; do
    name=${case%%=*}
    python3 - "$out/$name.html" "$out/$name.layout.html" <<'EOF'
import sys
page = open(sys.argv[1], encoding="utf-8").read()
probe = """<script>(function () {
  var d = document.querySelector('.diagram');
  var rings = d ? d.querySelectorAll('.ring') : [];
  var b = [Infinity, Infinity, -Infinity, -Infinity];
  rings.forEach(function (e) {
    var c = e.getBoundingClientRect();
    b = [Math.min(b[0], c.left), Math.min(b[1], c.top), Math.max(b[2], c.right), Math.max(b[3], c.bottom)];
  });
  document.body.setAttribute('data-rings', rings.length + ' ' + b.map(Math.round).join(' '));
})();</script>"""
assert "</body>" in page
open(sys.argv[2], "w", encoding="utf-8").write(page.replace("</body>", probe + "</body>"))
EOF
    /usr/bin/chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --disable-dev-shm-usage --hide-scrollbars --user-data-dir="$profile" \
        --window-size=1400,900 --dump-dom "file://$PWD/$out/$name.layout.html" \
        > "$out/$name.dom" 2> "$out/chromium.log" || {
        cat "$out/chromium.log" >&2
        echo "error: chromium failed" >&2
        exit 1
    }
    python3 - "$name" "$out/$name.dom" <<'EOF'
import re, sys
name, dom = sys.argv[1], open(sys.argv[2], encoding="utf-8").read()
if 'data-rings="0 ' in dom:
    sys.exit(f"{name}: no violating event is drawn")
m = re.search(r'data-rings="(\d+) (-?\d+) (-?\d+) (-?\d+) (-?\d+)"', dom)
if not m:
    sys.exit(f"{name}: the layout was not measured (no data-rings in the dumped DOM)")
rings, left, top, right, bottom = map(int, m.groups())
print(f"{name}: {rings} violating event(s) within x {left}-{right}, y {top}-{bottom}")
if rings == 0:
    sys.exit(f"{name}: no violating event is drawn")
if left < 0 or top < 0 or right > 1400 or bottom > 900:
    sys.exit(f"{name}: a violating event is off the 1400x900 first screen")
EOF
done

echo "=== check each screenshot: not blank, the violation drawn on the first screen ==="
pngs=()
for case in "${cases[@]}"; do pngs+=("$out/${case%%=*}.png"); done
python3 - "${pngs[@]}" <<'EOF'
import struct, sys, zlib

def check(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        return f"{path}: not a PNG"
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or colour not in (2, 6) or interlace:
                return (f"{path}: unsupported PNG (depth {depth}, colour type {colour}, interlace {interlace})")
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
    box = [width, height, -1, -1]
    for y, line in enumerate(rows):
        for x in range(0, stride, channels):
            r, g, b = line[x], line[x + 1], line[x + 2]
            colours.add((r, g, b))
            if r < 245 or g < 245 or b < 245:
                nonwhite += 1
            if r >= 180 and g <= 90 and b <= 90:
                red += 1
                px = x // channels
                box = [min(box[0], px), min(box[1], y), max(box[2], px), max(box[3], y)]
    share = 100.0 * nonwhite / total
    where = f" within x {box[0]}-{box[2]}, y {box[1]}-{box[3]}" if red else ""
    print(f"{path}: {width}x{height}, {len(colours)} distinct colours, "
          f"{share:.2f}% non-white pixels, {red} red pixels{where}")
    problems = []
    if (width, height) != (1400, 900):
        problems.append(f"the screenshot is {width}x{height}, not the 1400x900 first screen")
    if share <= 1.0:
        problems.append("at most 1% of the pixels are non-white: the page looks blank")
    if len(colours) < 16:
        problems.append(f"only {len(colours)} distinct colours")
    if red < 200:
        problems.append(f"only {red} red pixels: the violation is not drawn on the first screen")
    return f"{path}: " + "; ".join(problems) if problems else None

failed = [p for p in map(check, sys.argv[1:]) if p]
if failed:
    sys.exit("screenshot check failed:\n  " + "\n  ".join(failed))
print("screenshot check passed")
EOF
