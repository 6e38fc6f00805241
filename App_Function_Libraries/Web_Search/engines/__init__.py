"""Web_Search/engines"""
