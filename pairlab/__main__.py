import sys

from pairlab.cli import main

sys.exit(main())
