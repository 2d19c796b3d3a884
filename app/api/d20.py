"""Router placeholder; filled in by its owner."""

from fastapi import APIRouter

router = APIRouter()
