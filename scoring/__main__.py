import sys

from tcsexam.scoring.commands.main import main

sys.exit(main())
