#!/usr/bin/python3
"""Makes package/, the folder Toolport installs: manifest.yaml, main.py and stubs/, nothing else."""
import os
import shutil
import stat

here = os.path.dirname(os.path.abspath(__file__))
out = os.path.join(here, "package")
shutil.rmtree(out, ignore_errors=True)
os.mkdir(out)
for name in ("manifest.yaml", "main.py"):
    shutil.copy(os.path.join(here, name), os.path.join(out, name))
shutil.copytree(os.path.join(here, "stubs"), os.path.join(out, "stubs"), ignore=shutil.ignore_patterns("__pycache__"))
main = os.path.join(out, "main.py")
os.chmod(main, os.stat(main).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
print("built %s/" % os.path.relpath(out))
