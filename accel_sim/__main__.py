import sys

from accel_sim.cli import main

sys.exit(main())
