#!/usr/bin/env python3
"""The 256-entry "blues" table of core/colormap.cpp.

ColorBrewer's nine-class sequential Blues (Cynthia Brewer, colorbrewer2.org), the colours
matplotlib lists as _Blues_data in matplotlib/_cm.py: #f7fbff ... #08306b. matplotlib's Blues is
LinearSegmentedColormap.from_list over those nine colours, evenly spaced, sampled at N = 256
points t = k / 255 with linear interpolation per channel; here each channel is then rounded to
8 bits. Prints the table as core/colormap.cpp stores it: 256 six-digit hex colours, 96 characters
a line.
"""

BLUES = ["f7fbff", "deebf7", "c6dbef", "9ecae1", "6baed6", "4292c6", "2171b5", "08519c", "08306b"]


def channel(hex_colour, i):
    return int(hex_colour[2 * i:2 * i + 2], 16) / 255.0


def sample(t):
    x = t * (len(BLUES) - 1)
    k = min(int(x), len(BLUES) - 2)
    f = x - k
    return [channel(BLUES[k], i) + f * (channel(BLUES[k + 1], i) - channel(BLUES[k], i)) for i in range(3)]


def main():
    out = ""
    for n in range(256):
        rgb = sample(n / 255.0)
        out += "".join("%02x" % int(round(v * 255.0)) for v in rgb)
    for at in range(0, len(out), 96):
        print('    "%s"' % out[at:at + 96])


if __name__ == "__main__":
    main()
