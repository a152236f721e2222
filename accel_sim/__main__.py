import sys

from accel_sim.cli.main import main

sys.exit(main())
