# The two commands the README opens with.
.PHONY: survey test

# Installs what a survey needs, surveys the quick tier of Kornia and writes the page.
survey:
	scripts/setup.sh
	capmap run

# Installs that and the test tools (a browser, the linters), and runs every test.
test:
	scripts/setup.sh --test
	scripts/test.sh
