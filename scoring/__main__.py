import sys

from scoring.commands.main import main

sys.exit(main())
