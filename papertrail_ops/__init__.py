"""The operators' command (`papertrail-ops`): what a deployment runs and what its operators use on it. The production
image's entry point; the developers' `papertrail` command (papertrail_tools/) adds its tools on top."""
