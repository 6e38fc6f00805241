"""Retrieval"""
