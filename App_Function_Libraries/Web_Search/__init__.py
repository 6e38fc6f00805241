"""Web_Search"""
