module github.com/ptxplayground/ptxplay

go 1.26
