"""What the text tests share."""

import re

FORMULA = re.compile(r"\$\$.+?\$\$|\$(?:[^$\\]|\\.)+\$|\\\(.+?\\\)|\\\[.+?\\\]", re.DOTALL)
