"""Gradio_UI"""
