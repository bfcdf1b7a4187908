# The two commands the README opens with.
.PHONY: survey test setup

setup:
	scripts/setup.sh

# Installs everything, surveys the quick tier of Kornia and writes the page.
survey: setup
	capmap run

# Installs everything and runs every test.
test: setup
	scripts/test.sh
