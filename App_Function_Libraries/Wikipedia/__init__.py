"""Wikipedia"""
