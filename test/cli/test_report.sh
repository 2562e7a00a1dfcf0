#!/usr/bin/env bash
# kmerbloom report: the HTML report and the spectrum SVG from the statistics of
# data/example.fq.gz (a 12 kb genome at 30x), checked as files (structure,
# self-contained, plausible genome size) and, when Chromium is installed, as a
# rendered page that must not be blank or broken.
. "$(dirname "$0")/lib.sh"
EX=$SRC/data/example.fq.gz

"$KB" report --help > "$T/help"
for opt in --output --histo --plot; do grep -q -- "$opt" "$T/help" || bad "report --help lacks $opt"; done
ok "report --help lists every option"

"$KB" count "$EX" -o /dev/null --histo "$T/ex.histo" --stats "$T/ex.json" -t 2 -q
"$KB" report "$T/ex.json" -o "$T/report.html" --plot "$T/spectrum.svg" -q
check "report written" test -s "$T/report.html"
check "plot written" test -s "$T/spectrum.svg"
H=$T/report.html

# Structure: the sections and their tables, the inline plot, balanced tags.
for part in '<!DOCTYPE html>' '<svg' 'id="summary"' 'id="analysis"' 'id="layers"' 'id="memory"' 'id="passes"' \
  'Genome size estimate' 'error trough' 'Command line'; do
  grep -qF -- "$part" "$H" || bad "report lacks $part"
done
ok "report has the summary, spectrum, Bloom filter, memory and time sections"
balanced() { [ "$(grep -o "<$2[ >]" "$1" | wc -l)" -eq "$(grep -o "</$2>" "$1" | wc -l)" ]; }
for tag in table tr section svg ul; do
  balanced "$H" "$tag" || bad "report: <$tag> and </$tag> do not pair up"
done
ok "report tags pair up"

# Self-contained: no script, no stylesheet or font from elsewhere, and the only
# URL is the SVG namespace.
check "report has no script" sh -c "! grep -qiE '<script|<link|@import|url\\(' '$H'"
urls=$(grep -oE 'https?://[^"'"'"' )<]*' "$H" | sort -u | tr '\n' ' ')
if [ "$urls" = "http://www.w3.org/2000/svg " ]; then ok "report refers to no URL but the SVG namespace"; else
  bad "report refers to: $urls"; fi

# The numbers: the example genome is a 12 kb stretch, the analysis must see it.
bp=$(sed -n 's/.*Genome size estimate<\/th><td><b>[^<]*<\/b> (\([0-9,]*\) bp.*/\1/p' "$H" | tr -d ,)
if [ -n "$bp" ] && [ "$bp" -ge 10000 ] && [ "$bp" -le 14000 ]; then ok "genome size estimate $bp bp near 12 kb"; else
  bad "genome size estimate '$bp' is not near 12 kb"; fi
check "spectrum judged reliable" grep -q '<b>Reliable:</b>' "$H"

# The SVG alone: a standalone, well-formed document with the marks.
check "plot starts with an XML declaration" sh -c "head -1 '$T/spectrum.svg' | grep -q '^<?xml'"
check "plot marks the trough and the peak" sh -c "grep -q 'error trough: ' '$T/spectrum.svg' && grep -q 'peak: ' '$T/spectrum.svg'"
if need python3; then
  check "plot is well-formed XML" python3 -c "import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])" "$T/spectrum.svg"
fi

# The histogram from a jellyfish-style file gives the same page.
"$KB" report "$T/ex.json" --histo "$T/ex.histo" -o "$T/from-histo.html" -q
same "--histo gives the same report as the embedded rows" "$T/from-histo.html" "$H"

# Errors: exit codes and messages.
"$KB" report "$T/ex.json" -q > "$T/stdout.html" || bad "report without -o failed"
same "report without -o or --plot writes the page to stdout" "$T/stdout.html" "$H"
expect_fail "missing statistics" 3 "missing.json" -- "$KB" report "$T/missing.json" -o "$T/x.html"
echo '{"reads": ' > "$T/broken.json"
expect_fail "malformed statistics" 3 "not JSON" -- "$KB" report "$T/broken.json" -o "$T/x.html"
printf '1 10\n2 oops\n' > "$T/bad.histo"
expect_fail "malformed histogram" 3 "line 2" -- "$KB" report "$T/ex.json" --histo "$T/bad.histo" -o "$T/x.html"
echo '{"reads": 5}' > "$T/nohisto.json"
expect_fail "--plot without a histogram" 3 "--histo" -- "$KB" report "$T/nohisto.json" --plot "$T/x.svg"
check "no partial output after errors" sh -c "! ls '$T'/x.* 2> /dev/null | grep -q ."
"$KB" report "$T/nohisto.json" -o "$T/nohisto.html" -q
check "report without a histogram says how to get one" grep -q 'No histogram' "$T/nohisto.html"

# Rendered as a user sees it: a headless Chromium screenshot must show a page
# (not blank, many colours) with the spectrum plot drawn (its fill colour).
if ! need python3; then
  :
elif screenshot "$H" "$T/report.png" 1200,1600; then
    stats=$(PYTHONPATH="$SRC/test/cli" python3 - "$T/report.png" << 'EOF'
import sys
from png_rows import png_rows
w, h, bpp, rows = png_rows(sys.argv[1])
stride = w * bpp
colours, nonwhite, plot_fill, total = set(), 0, 0, w * h
for line in rows:
    for x in range(0, stride, bpp):
        r, g, b = line[x], line[x + 1], line[x + 2]
        colours.add((r >> 3, g >> 3, b >> 3))
        if r < 240 or g < 240 or b < 240: nonwhite += 1
        if abs(r - 0xcf) < 8 and abs(g - 0xe0) < 8 and abs(b - 0xf3) < 8: plot_fill += 1
print(len(colours), round(nonwhite / total, 4), plot_fill)
EOF
    ) || stats=""
    read -r ncol share fill <<< "${stats:-0 0 0}"
    echo "screenshot: $ncol colours, non-white share $share, plot-fill pixels $fill"
    if [ "$ncol" -ge 20 ] && awk -v s="$share" 'BEGIN { exit !(s > 0.02 && s < 0.98) }'; then
      ok "rendered page is not blank ($ncol colours, non-white share $share)"
    else
      bad "rendered page looks blank or broken ($ncol colours, non-white share $share)"
    fi
    if [ "$fill" -ge 5000 ]; then ok "rendered page shows the spectrum plot"; else
      bad "rendered page lacks the spectrum plot ($fill fill pixels)"; fi
fi

finish
