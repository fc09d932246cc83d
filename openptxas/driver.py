"""Compile driver: runs the pipeline stages in order.

PTX -> IR -> passes -> register allocation -> scheduling -> encoding -> ELF.
"""
