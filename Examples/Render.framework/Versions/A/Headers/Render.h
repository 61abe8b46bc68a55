// Render.h
