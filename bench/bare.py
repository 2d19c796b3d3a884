"""The yardstick: a bare FastAPI app that does nothing but return a constant."""

from fastapi import FastAPI

app = FastAPI()


@app.get("/")
async def constant() -> dict[str, bool]:
    return {"ok": True}
