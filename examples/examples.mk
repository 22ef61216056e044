examples:
	@echo todo
