"""Documents"""
